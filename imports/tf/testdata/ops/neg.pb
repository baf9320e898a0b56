
;
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ

yNegx*
T0"ª
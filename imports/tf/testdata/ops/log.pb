
;
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ

yLogx*
T0"ª
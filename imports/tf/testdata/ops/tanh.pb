
;
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ

yTanhx*
T0"ª
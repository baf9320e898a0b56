
;
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ

ySigmoidx*
T0"ª